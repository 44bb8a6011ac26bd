// The page's own words in the four languages it speaks: one file a language
// (locales/<lang>.json, key -> text, or key -> {one, other, ...} for plural forms),
// only the player's language loaded. A key a language lacks is said in English (its
// file loaded then). The names of cards, suits, variants and scoring categories are
// not here: the API gives them (names.js).

export const LANGUAGES = ['it', 'en', 'pt', 'es'];
const FALLBACK = 'en';

const loaded = new Map(); // lang -> Promise of its strings
const strings = {}; // lang -> its strings, once loaded
const listeners = new Set(); // told when words come that were missing
let current = 'en';
let fallbackAsked = false;
const unread = new Set(); // the languages whose file could not be read

/** The language to start in: the saved choice, else the browser's, else English. */
export function preferredLanguage(saved) {
  if (LANGUAGES.includes(saved)) return saved;
  for (const tag of navigator.languages || [navigator.language || '']) {
    const lang = tag.slice(0, 2).toLowerCase();
    if (LANGUAGES.includes(lang)) return lang;
  }
  return 'en';
}

/** The strings of `lang` (read once; a failed read is tried again at the next call). The
 * file lies beside this module: under the page's versioned prefix, kept a year. */
export function loadStrings(lang) {
  if (!loaded.has(lang)) {
    const url = new URL(`locales/${lang}.json`, import.meta.url);
    const read = fetch(url).then((response) => {
      if (!response.ok) throw new Error(`${url.pathname}: HTTP ${response.status}`);
      return response.json();
    });
    loaded.set(
      lang,
      read.then(
        (words) => {
          strings[lang] = words;
          unread.delete(lang);
          return words;
        },
        (error) => {
          loaded.delete(lang);
          unread.add(lang);
          throw error;
        },
      ),
    );
  }
  return loaded.get(lang);
}

/** Use `lang` (its strings loaded by loadStrings). */
export function setLanguage(lang) {
  current = LANGUAGES.includes(lang) ? lang : 'en';
  document.documentElement.lang = current;
}

export function language() {
  return current;
}

/** `listener()` is called when English words come for keys the language lacked. */
export function onWords(listener) {
  listeners.add(listener);
}

/** The English text of `key`: loaded at the first key missing from the language's file
 * (or if that file could not be read), the page said again then; meanwhile the key. */
function fallback(key) {
  if (strings[FALLBACK]) return strings[FALLBACK][key];
  if (!strings[current] && !unread.has(current)) return undefined; // still on its way
  if (!fallbackAsked) {
    fallbackAsked = true;
    loadStrings(FALLBACK).then(
      () => listeners.forEach((listener) => listener()),
      () => {
        fallbackAsked = false; // asked again at the next key missing
      },
    );
  }
  return undefined;
}

/** The UI string `key` in the current language, with `{name}` placeholders filled. */
export function t(key, values = {}) {
  let text = strings[current]?.[key] ?? fallback(key) ?? key;
  if (typeof text === 'object') {
    // Plural forms, by the language's rule for `n` (Intl.PluralRules): one, other...
    text = text[new Intl.PluralRules(current).select(Number(values.n))] ?? text.other;
  }
  return text.replace(/\{(\w+)\}/g, (_, name) => {
    const value = values[name];
    if (typeof value === 'number') return new Intl.NumberFormat(current).format(value);
    return String(value ?? '');
  });
}

/** Fill every element marked data-i18n="key" (its text), data-i18n-label (aria-label) or
 * data-i18n-title (its tooltip). */
export function translatePage(root = document) {
  for (const el of root.querySelectorAll('[data-i18n]')) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll('[data-i18n-label]')) {
    el.setAttribute('aria-label', t(el.dataset.i18nLabel));
  }
  for (const el of root.querySelectorAll('[data-i18n-title]')) el.title = t(el.dataset.i18nTitle);
}
