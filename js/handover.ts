/**
 * What a restarting core hands over to the next one: its engine once the new core has loaded
 * what was saved, or null if it could not. Whoever asks meanwhile awaits it instead of finding
 * nothing; it settles once.
 */
export class Handover<T> {
  readonly next: Promise<T | null>;
  private settle!: (value: T | null) => void;

  constructor() {
    this.next = new Promise((resolve) => (this.settle = resolve));
  }

  done(value: T | null): void {
    this.settle(value);
  }
}
