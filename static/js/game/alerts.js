/*
 * Following a game from another tab: a beep on every new turn and a notification when it is
 * the player's turn, each switched on by its checkbox (the choice kept in localStorage).
 */
import { byId } from "../lib/util.js";

const SOUND_KEY = "siesta.sound";
const NOTIFY_KEY = "siesta.notify";

function stored(key) {
  try {
    return window.localStorage.getItem(key) === "on";
  } catch (error) {
    return false;
  }
}

function store(key, on) {
  try {
    window.localStorage.setItem(key, on ? "on" : "off");
  } catch (error) {
    /* private mode: the choice lasts for this page only */
  }
}

let audio = null;

function beep() {
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context) return;
  try {
    audio = audio || new Context();
    const oscillator = audio.createOscillator();
    const gain = audio.createGain();
    oscillator.frequency.value = 660;
    gain.gain.setValueAtTime(0.0001, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.2, audio.currentTime + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, audio.currentTime + 0.25);
    oscillator.connect(gain).connect(audio.destination);
    oscillator.start();
    oscillator.stop(audio.currentTime + 0.3);
  } catch (error) {
    /* no sound device */
  }
}

/** After a new state: `played` (a turn was played), `myTurn` (now the player's). */
export function announceTurn({ played, myTurn, title, body }) {
  const sound = byId("sound-toggle");
  const notify = byId("notify-toggle");
  if (played && sound && sound.checked) beep();
  if (myTurn && document.hidden && notify && notify.checked) {
    if ("Notification" in window && Notification.permission === "granted") {
      try {
        new Notification(title, { body, tag: "siesta-turn" });
      } catch (error) {
        /* some browsers only notify from a service worker */
      }
    }
  }
}

export function setUpToggles() {
  const sound = byId("sound-toggle");
  if (sound) {
    sound.checked = stored(SOUND_KEY);
    sound.addEventListener("change", () => store(SOUND_KEY, sound.checked));
  }
  const notify = byId("notify-toggle");
  if (notify) {
    if (!("Notification" in window)) {
      notify.closest("label").hidden = true;
      return;
    }
    notify.checked = stored(NOTIFY_KEY) && Notification.permission === "granted";
    notify.addEventListener("change", () => {
      if (!notify.checked) {
        store(NOTIFY_KEY, false);
        return;
      }
      Notification.requestPermission().then((answer) => {
        notify.checked = answer === "granted";
        store(NOTIFY_KEY, notify.checked);
      });
    });
  }
}
