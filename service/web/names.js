// The names the API gives (GET /v1/cards): cards, suits, variants and scoring
// categories, in one language, for one pack's faces.

import { api } from './api.js';

const loaded = new Map();
let names = null;

/** Load (once per language and faces) and use the names of `lang` for `faces`. */
export async function useNames(lang, faces) {
  const key = `${lang}/${faces}`;
  if (!loaded.has(key)) {
    loaded.set(
      key,
      api.cards(lang, faces).catch((error) => {
        loaded.delete(key);
        throw error;
      }),
    );
  }
  const answer = await loaded.get(key);
  names = {
    cards: new Map(answer.cards.map((c) => [c.card, c.name])),
    suits: new Map(answer.suits.map((s) => [s.suit, s.name])),
    variants: new Map(answer.variants.map((v) => [v.variant, v.name])),
    categories: answer.categories.map((c) => [c.category, c.name]),
  };
  return names;
}

export function cardName(code) {
  return names?.cards.get(code) ?? code;
}

export function cardList(codes) {
  return codes.map(cardName).join(', ');
}

export function variantName(variant, fallback) {
  return names?.variants.get(variant) ?? fallback ?? variant;
}

/** The scoring categories, in order: [[key, name], ...] ("total" last). */
export function categories() {
  return names?.categories ?? [];
}
