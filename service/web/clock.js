// The turn clock: the seconds left to the seat to play, from the view's
// `clock: {seconds, deadline}` (null when the match has no clock, or no person's turn runs).

import { fill, h } from './dom.js';
import { t } from './strings.js';

const SVG = 'http://www.w3.org/2000/svg';

function stopwatch() {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', '0 0 16 16');
  svg.setAttribute('class', 'stopwatch');
  svg.setAttribute('aria-hidden', 'true');
  svg.innerHTML = `<circle cx="8" cy="9" r="6" fill="none" stroke="currentColor" stroke-width="1.6"/>
    <path d="M8 9V5.5M6 1.5h4M12.5 3.5l1 1" stroke="currentColor" stroke-width="1.6" stroke-linecap="round"/>`;
  return svg;
}

export class Clock {
  constructor(el) {
    this.el = el;
    this.deadline = null;
    this.timer = null;
  }

  /** Show the clock of `view` (nothing when it has none). */
  show(view, who) {
    const deadline = view?.status === 'playing' && view.clock?.deadline;
    this.deadline = deadline ? Date.parse(deadline) : null;
    this.who = who;
    clearInterval(this.timer);
    this.timer = null;
    if (this.deadline === null) {
      fill(this.el);
      this.el.hidden = true;
      return;
    }
    this.el.hidden = false;
    this.tick();
    this.timer = setInterval(() => this.tick(), 250);
  }

  tick() {
    const left = Math.max(0, Math.ceil((this.deadline - Date.now()) / 1000));
    this.el.classList.toggle('hurry', left <= 10);
    fill(this.el, stopwatch(), `${this.who}: ${t('seconds', { n: left })}`);
    if (left === 0) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  stop() {
    clearInterval(this.timer);
    this.timer = null;
  }
}
