// The moments a player should feel: a scopa (a banner over the swept table while the game
// pauses, a short sound, a vibration where the device has one) and their turn coming (a soft sound). Sounds are made here with
// WebAudio (no file is downloaded), and only when the player turned them on (off by
// default; remembered).

import { $, fill } from './dom.js';

const BANNER_MS = 1800; // the longest it shows: the game going on takes it away sooner
let context = null;
let soundOn = false;
let bannerTimer = null;

export function setSound(on) {
  soundOn = Boolean(on);
}

function audio() {
  if (!soundOn || !(window.AudioContext || window.webkitAudioContext)) return null;
  context ??= new (window.AudioContext || window.webkitAudioContext)();
  if (context.state === 'suspended') context.resume().catch(() => {});
  return context;
}

/** Notes (frequency in Hz, start and length in s) on a soft sine, quickly fading. */
function chime(notes, volume = 0.18) {
  const ctx = audio();
  if (!ctx) return false;
  const start = ctx.currentTime + 0.01;
  for (const [frequency, at, length] of notes) {
    const oscillator = ctx.createOscillator();
    const gain = ctx.createGain();
    oscillator.type = 'triangle';
    oscillator.frequency.value = frequency;
    gain.gain.setValueAtTime(0.0001, start + at);
    gain.gain.exponentialRampToValueAtTime(volume, start + at + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, start + at + length);
    oscillator.connect(gain).connect(ctx.destination);
    oscillator.start(start + at);
    oscillator.stop(start + at + length + 0.05);
  }
  document.body.dataset.sounds = String(Number(document.body.dataset.sounds ?? 0) + 1);
  return true;
}

/** A scopa: the banner `text` over the table (swept: nothing lies under it), a rising
 * chime, a buzz. The banner goes at the next card laid or your turn (`sweepShown`). */
export function scopaMoment(text) {
  const banner = $('#banner');
  fill(banner, text);
  banner.hidden = false;
  banner.classList.remove('show');
  void banner.offsetWidth; // restart its animation
  banner.classList.add('show');
  clearTimeout(bannerTimer);
  bannerTimer = setTimeout(() => {
    banner.hidden = true;
    banner.classList.remove('show');
  }, BANNER_MS);
  chime([[523, 0, 0.18], [659, 0.12, 0.18], [784, 0.24, 0.35]]);
  navigator.vibrate?.([60, 40, 120]);
}

/** The game goes on after a sweep: its banner goes, so that it never lies over cards. */
export function sweepShown() {
  clearTimeout(bannerTimer);
  const banner = $('#banner');
  if (banner.hidden) return;
  banner.hidden = true;
  banner.classList.remove('show');
}

/** Your turn: two soft notes. */
export function turnMoment() {
  chime([[660, 0, 0.12], [880, 0.1, 0.2]], 0.1);
}
