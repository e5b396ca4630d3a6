/*
 * The game page's state store: the current game state (API.md) and its version. "state" frames
 * go through receive(): an older or equal version is a snapshot answer, a gap asks for a sync.
 * Subscribers get (state, before) after every state applied.
 */

export class GameStore {
  constructor(state) {
    this.state = state;
    this.version = state.version;
    this.awaitingSnapshot = true; // after a (re)connect the server sends the whole state
    this.listeners = [];
  }

  subscribe(listener) {
    this.listeners.push(listener);
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  expectSnapshot() {
    this.awaitingSnapshot = true;
  }

  /** A "state" frame: returns "gap" when the page must ask for the whole state ("sync"). */
  receive(message) {
    const incoming = message.version;
    if (incoming <= this.version) {
      this.awaitingSnapshot = false;
      if (incoming === this.version) this.apply(message.game, incoming);
      return "stale";
    }
    if (incoming > this.version + 1 && !this.awaitingSnapshot) {
      this.awaitingSnapshot = true;
      return "gap";
    }
    this.awaitingSnapshot = false;
    this.apply(message.game, incoming);
    return "applied";
  }

  apply(game, version) {
    const before = this.state;
    keepRatings(game, before);
    this.state = game;
    this.version = version;
    for (const listener of this.listeners) listener(game, before);
  }

  // -- questions about the state -----------------------------------------------------------------

  seat(number) {
    return this.state.seats.find((seat) => seat.seat === number) || null;
  }

  /** Whether `seat` may play now. */
  isTurnOf(seat) {
    const found = seat ? this.seat(seat) : null;
    return Boolean(found && !found.resigned && this.state.status === "active" && this.state.to_move === seat);
  }

  /** Whether `seat` is still in the game in play. */
  isPlaying(seat) {
    const found = seat ? this.seat(seat) : null;
    return Boolean(found && !found.resigned && this.state.status === "active");
  }
}

/** Socket frames carry no ratings (the page's first state does): keep each person's. */
function keepRatings(game, before) {
  for (const seat of game.seats) {
    const old = before.seats.find((other) => other.seat === seat.seat);
    if (old && !("rating" in seat) && "rating" in old && old.username === seat.username) {
      seat.rating = old.rating;
    }
  }
}
