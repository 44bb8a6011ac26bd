// The hint line: what the expert would play now, and why, with a link to the rules.

import { $, fill, h } from './dom.js';
import { cardList, cardName } from './names.js';
import { language, t } from './strings.js';

/** The hint line: `tell` makes its text in the page's words (said again when they change),
 * `anchor` a section of the rules page to link to. */
let hintTold = null;
let hintAnchor = null;
export function showHintText(tell, anchor = null) {
  hintTold = tell;
  hintAnchor = anchor;
  const box = $('#hint-text');
  const text = tell ? tell() : '';
  const query = new URLSearchParams({ lang: language() });
  const link = anchor
    ? h('a', { href: `/play/rules?${query}#${anchor}`, target: '_blank', rel: 'noopener' }, t('hintRules'))
    : null;
  fill(box, text, link ? ' ' : null, link);
  box.hidden = !text;
}

/** The hint line said again (in the page's words, changed). */
export function sayHintAgain() {
  showHintText(hintTold, hintAnchor);
}

export function hideHint() {
  showHintText(null);
}

/** What the expert would play, and why: what it takes, and the margin it expects. */
function hintText(view, answer) {
  const { card, capture } = answer.move;
  const parts = [];
  if (answer.declaration) parts.push(t('hintDeclare', { kind: answer.declaration.declare }));
  parts.push(
    capture.length
      ? t('hintTake', { card: cardName(card), cards: cardList(capture) })
      : t('hintPlay', { card: cardName(card) }),
  );
  const taken = [card, ...capture];
  if (capture.length && capture.length === view.table.length) parts.push(t('hintScopa'));
  else if (capture.length && taken.includes('7D')) parts.push(t('hintSettebello'));
  else if (capture.length && taken.some((c) => c.endsWith('D'))) parts.push(t('hintCoins'));
  else if (!capture.length) parts.push(t('hintLay'));
  if (answer.value != null) {
    const value = new Intl.NumberFormat(language(), { maximumFractionDigits: 1, signDisplay: 'always' });
    parts.push(t('hintValue', { value: value.format(answer.value) }));
  }
  return parts.join(' ');
}

export function showHint(view, answer) {
  const { capture } = answer.move;
  const sweep = capture.length && capture.length === view.table.length;
  // docs/rules.md's sections, as the rules page anchors them: R5.1 (a scopa), R4 (captures).
  showHintText(() => hintText(view, answer), sweep ? 'r51-the-sweep' : 'r4-capturing');
}
