// The 40 cards, drawn as SVG in code (no image is downloaded): Italian faces in the
// Napoletane style (denari, coppe, spade, bastoni; Fante, Cavallo, Re) or French faces
// (diamonds, hearts, spades, clubs; J, Q, K). A card's code is its value 1-10 then its
// suit letter D, C, S or B (docs/rules.md R1.3-R1.4). Every drawing is 100 x 150 units.

const SVG = 'http://www.w3.org/2000/svg';
const INK = '#2b2118';
const GOLD = '#e2b33c';
const GOLD_DARK = '#7a4a00';

// -- the suits, each around (0, 0), about 24 units across ---------------------------------

const ITALIAN_SUITS = {
  D: `<circle r="11" fill="${GOLD}" stroke="${GOLD_DARK}" stroke-width="1.4"/>
      <circle r="7.5" fill="none" stroke="${GOLD_DARK}" stroke-width="1"/>
      <path d="M0,-6 L1.6,-1.6 L6,0 L1.6,1.6 L0,6 L-1.6,1.6 L-6,0 L-1.6,-1.6Z" fill="#b5332b"/>
      <circle r="1.6" fill="#fff3c4"/>`,
  C: `<path d="M-9,-10 H9 C9,-2 5,3 0,3 C-5,3 -9,-2 -9,-10Z" fill="#c9342b" stroke="#6b1410" stroke-width="1.2"/>
      <rect x="-9.5" y="-12.5" width="19" height="3" rx="1.2" fill="${GOLD}" stroke="${GOLD_DARK}" stroke-width="0.8"/>
      <path d="M-1.6,3 H1.6 L2.4,8 H-2.4Z" fill="${GOLD}" stroke="${GOLD_DARK}" stroke-width="0.8"/>
      <ellipse cy="9.6" rx="7" ry="2.4" fill="${GOLD}" stroke="${GOLD_DARK}" stroke-width="0.8"/>`,
  S: `<path d="M0,-13.5 L2.6,-9 L2.6,5 L-2.6,5 L-2.6,-9Z" fill="#c9d6e3" stroke="#1f4e79" stroke-width="1"/>
      <path d="M0,-9 V4" stroke="#1f4e79" stroke-width="0.6"/>
      <rect x="-7.5" y="5" width="15" height="2.8" rx="1.3" fill="${GOLD}" stroke="${GOLD_DARK}" stroke-width="0.7"/>
      <rect x="-1.5" y="7.8" width="3" height="4.4" fill="#1f4e79"/>
      <circle cy="13.4" r="1.9" fill="${GOLD}" stroke="${GOLD_DARK}" stroke-width="0.7"/>`,
  B: `<g transform="rotate(-18)">
      <path d="M-1.9,13 C-2.7,4 -4.9,-4 -4.3,-10 C-3.7,-14.5 3.7,-14.5 4.3,-10 C4.9,-4 2.7,4 1.9,13Z" fill="#9a6b34" stroke="#4e3210" stroke-width="1.1"/>
      <circle cx="-3.7" cy="-3" r="1.5" fill="#3d7a2e"/>
      <circle cx="3.3" cy="2" r="1.4" fill="#3d7a2e"/>
      <circle cx="-2.5" cy="6.5" r="1.2" fill="#3d7a2e"/>
      <path d="M-2,-8.5 Q0,-10.5 2,-8.5" fill="none" stroke="#4e3210" stroke-width="0.7"/></g>`,
};

const RED = '#c8102e';
const BLACK = '#1a1a1a';
const FRENCH_COLOURS = { D: RED, C: RED, S: BLACK, B: BLACK };
const FRENCH_SUITS = {
  D: `<path d="M0,-12 L9,0 L0,12 L-9,0Z" fill="${RED}"/>`,
  C: `<path d="M0,11 C-4,6 -11,1 -11,-5 C-11,-10 -5,-12 0,-6 C5,-12 11,-10 11,-5 C11,1 4,6 0,11Z" fill="${RED}"/>`,
  S: `<path d="M0,-12 C-4,-6 -11,-2 -11,3 C-11,8 -5,9 -1.2,5 C-1.5,8 -3,10.5 -5,12 H5 C3,10.5 1.5,8 1.2,5 C5,9 11,8 11,3 C11,-2 4,-6 0,-12Z" fill="${BLACK}"/>`,
  B: `<g fill="${BLACK}"><circle cy="-6" r="5"/><circle cx="-5.6" cy="2" r="5"/><circle cx="5.6" cy="2" r="5"/>
      <path d="M-1.2,1 C-1.4,6 -3,9.5 -5,12 H5 C3,9.5 1.4,6 1.2,1Z"/></g>`,
};

/** Where the pips of the cards 1-7 go. */
const PIPS = {
  1: [[50, 75]],
  2: [[50, 38], [50, 112]],
  3: [[50, 35], [50, 75], [50, 115]],
  4: [[32, 40], [68, 40], [32, 110], [68, 110]],
  5: [[32, 38], [68, 38], [50, 75], [32, 112], [68, 112]],
  6: [[31, 34], [69, 34], [31, 75], [69, 75], [31, 116], [69, 116]],
  7: [[30, 33], [70, 33], [50, 54], [30, 77], [70, 77], [30, 118], [70, 118]],
};

const place = (symbol, x, y, scale = 1, turn = 0) =>
  `<g transform="translate(${x} ${y}) rotate(${turn}) scale(${scale})">${symbol}</g>`;

function pips(value, symbol, mirrored) {
  const scale = value === 1 ? 2.6 : value >= 6 ? 1.1 : 1.3;
  return PIPS[value]
    .map(([x, y]) => place(symbol, x, y, scale, mirrored && y > 75 ? 180 : 0))
    .join('');
}

const corners = (top, bottom = top) =>
  `${place(top, 11, 13)}${place(bottom, 89, 137, 1, 180)}`;

// -- Italian faces ----------------------------------------------------------------------

/** The cloth of each suit's figures. */
const CLOTH = { D: '#b5332b', C: '#2f5f9e', S: '#3d7a2e', B: '#7b3f98' };
const SKIN = 'fill="#f2cfa4" stroke="#6b4a2b" stroke-width="1"';

function italianFigure(value, suit) {
  const symbol = ITALIAN_SUITS[suit];
  const cloth = CLOTH[suit];
  const frame = `<rect x="15" y="15" width="70" height="120" rx="4" fill="#f6ecd2" stroke="${cloth}" stroke-width="1.5"/>`;
  if (value === 8) {
    // Fante: a page standing, holding his suit.
    return `${frame}
      <path d="M41,40 Q50,26 60,38 Q52,34 41,40Z" fill="${cloth}" stroke="${INK}" stroke-width="0.8"/>
      <circle cx="50" cy="46" r="8" ${SKIN}/>
      <path d="M38,58 Q50,52 62,58 L65,100 H35Z" fill="${cloth}" stroke="${INK}" stroke-width="1"/>
      <path d="M38,74 H62" stroke="${GOLD}" stroke-width="2"/>
      <rect x="41" y="100" width="6" height="26" fill="#4a3b2a"/><rect x="53" y="100" width="6" height="26" fill="#4a3b2a"/>
      <path d="M38,127 H48 M52,127 H62" stroke="${INK}" stroke-width="3"/>
      ${place(symbol, 67, 84, 0.95)}`;
  }
  if (value === 9) {
    // Cavallo: a rider on his horse.
    return `${frame}
      <ellipse cx="47" cy="98" rx="22" ry="10" fill="#c8a070" stroke="#6b4a2b" stroke-width="1"/>
      <path d="M62,94 L70,72 Q76,66 81,72 L80,78 L73,80 L68,98Z" fill="#c8a070" stroke="#6b4a2b" stroke-width="1"/>
      <path d="M70,71 L66,66" stroke="#6b4a2b" stroke-width="1.5"/>
      <path d="M32,104 L29,126 M40,106 L40,127 M56,106 L57,127 M63,102 L67,124" stroke="#6b4a2b" stroke-width="3"/>
      <path d="M26,96 Q20,104 22,114" fill="none" stroke="#6b4a2b" stroke-width="2.5"/>
      <circle cx="46" cy="52" r="6.5" ${SKIN}/>
      <path d="M39,48 Q46,40 53,48Z" fill="${cloth}"/>
      <path d="M39,62 Q46,58 53,62 L55,92 H37Z" fill="${cloth}" stroke="${INK}" stroke-width="1"/>
      ${place(symbol, 29, 66, 0.85)}`;
  }
  // Re: a crowned king on his throne, his suit before him.
  return `${frame}
    <path d="M40,38 L40,28 L45,33 L50,25 L55,33 L60,28 L60,38Z" fill="${GOLD}" stroke="${GOLD_DARK}" stroke-width="1"/>
    <circle cx="50" cy="46" r="8.5" ${SKIN}/>
    <path d="M43,50 Q50,62 57,50 Q50,55 43,50Z" fill="#8a8a8a"/>
    <path d="M36,58 Q50,51 64,58 L72,128 H28Z" fill="${cloth}" stroke="${INK}" stroke-width="1"/>
    <path d="M50,58 V128" stroke="${GOLD}" stroke-width="2.5"/>
    <path d="M30,118 H70" stroke="${GOLD}" stroke-width="2"/>
    ${place(symbol, 50, 88, 1.05)}`;
}

function italianFace(value, suit) {
  const index = `<text x="0" y="5" text-anchor="middle" font-family="Georgia, serif" font-weight="bold" font-size="15" fill="${INK}">${value}</text>`;
  const body = value <= 7 ? pips(value, ITALIAN_SUITS[suit], false) : italianFigure(value, suit);
  return `${body}${corners(index)}`;
}

// -- French faces -----------------------------------------------------------------------

const FRENCH_LABELS = { 1: 'A', 8: 'J', 9: 'Q', 10: 'K' };

function frenchFigure(value, suit) {
  const colour = FRENCH_COLOURS[suit];
  const cloth = suit === 'D' || suit === 'C' ? '#2f5f9e' : '#c8102e';
  const headgear = {
    8: `<path d="M40,37 Q50,24 61,35 L62,39 H39Z" fill="${cloth}" stroke="${INK}" stroke-width="0.8"/>`,
    9: `<path d="M41,37 Q50,31 59,37" fill="none" stroke="${GOLD}" stroke-width="3"/>
        <circle cx="50" cy="32" r="2" fill="${colour}"/>`,
    10: `<path d="M40,38 L40,28 L45,33 L50,25 L55,33 L60,28 L60,38Z" fill="${GOLD}" stroke="${GOLD_DARK}" stroke-width="1"/>`,
  }[value];
  const half = `
    <path d="M27,75 Q29,58 50,56 Q71,58 73,75Z" fill="${cloth}" stroke="${INK}" stroke-width="1"/>
    <path d="M44,57 L50,68 L56,57" fill="${GOLD}" stroke="${INK}" stroke-width="0.6"/>
    <circle cx="50" cy="45" r="9" ${SKIN}/>
    ${value === 10 ? '<path d="M43,49 Q50,60 57,49 Q50,54 43,49Z" fill="#8a6a3a"/>' : ''}
    ${value === 9 ? '<path d="M41,44 Q41,56 36,60 M59,44 Q59,56 64,60" fill="none" stroke="#8a6a3a" stroke-width="2.5"/>' : ''}
    ${headgear}
    ${place(FRENCH_SUITS[suit], 70, 32, 0.6)}`;
  return `<rect x="17" y="17" width="66" height="116" rx="3" fill="#fbf7ea" stroke="${colour}" stroke-width="1.2"/>
    ${half}<g transform="rotate(180 50 75)">${half}</g>
    <path d="M17,75 H83" stroke="${colour}" stroke-width="1"/>`;
}

function frenchFace(value, suit) {
  const colour = FRENCH_COLOURS[suit];
  const label = FRENCH_LABELS[value] ?? String(value);
  const index = `<text x="0" y="4" text-anchor="middle" font-family="Georgia, serif" font-weight="bold" font-size="15" fill="${colour}">${label}</text>
    ${place(FRENCH_SUITS[suit], 0, 15, 0.42)}`;
  const body = value <= 7 ? pips(value, FRENCH_SUITS[suit], true) : frenchFigure(value, suit);
  return `${body}${corners(index)}`;
}

// -- whole cards ------------------------------------------------------------------------

const PAPER = { italian: '#fffaf0', french: '#ffffff' };
const drawn = new Map();

function svgOf(markup) {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', '0 0 100 150');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  svg.innerHTML = markup;
  return svg;
}

/** The face of the card `code` ("7D") as an <svg>, in the `faces` style. */
export function cardSvg(code, faces = 'italian') {
  const key = `${faces}:${code}`;
  if (!drawn.has(key)) {
    const value = Number.parseInt(code, 10);
    const suit = code.slice(-1);
    const face = faces === 'french' ? frenchFace(value, suit) : italianFace(value, suit);
    drawn.set(
      key,
      `<rect x="1" y="1" width="98" height="148" rx="8" fill="${PAPER[faces] ?? PAPER.italian}" stroke="#8d8d8d" stroke-width="1.5"/>${face}`,
    );
  }
  return svgOf(drawn.get(key));
}

/** The back of a card, the same for both faces. */
export function backSvg() {
  const dots = [];
  for (let y = 22; y <= 128; y += 15) {
    for (let x = 22 + ((y - 22) % 30 ? 7 : 0); x <= 78; x += 14) {
      dots.push(`<path d="M${x},${y - 4} L${x + 4},${y} L${x},${y + 4} L${x - 4},${y}Z"/>`);
    }
  }
  return svgOf(`<rect x="1" y="1" width="98" height="148" rx="8" fill="#7d1d1d" stroke="#4a0f0f" stroke-width="1.5"/>
    <rect x="8" y="8" width="84" height="134" rx="5" fill="none" stroke="${GOLD}" stroke-width="1.5"/>
    <g fill="#a8423a">${dots.join('')}</g>
    <circle cx="50" cy="75" r="13" fill="#7d1d1d" stroke="${GOLD}" stroke-width="1.5"/>
    ${place(ITALIAN_SUITS.D, 50, 75, 0.8)}`);
}
