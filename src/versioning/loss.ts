// Every translation between 0.3 and 1.0 returns the value and the list of what it could not
// carry. The ids are the rows of the loss register (LOSSY.md; a2a-wire.md §2.15).

export type LossDirection = "to-0.3" | "to-1.0";

export interface Loss {
  /** Loss-register row, "L1" … "L28". */
  id: `L${number}`;
  direction: LossDirection;
  /** JSON Pointer of the affected value in the input. */
  path: string;
  /** What was dropped or approximated, in words. */
  detail: string;
}

export interface Translated<T> {
  value: T;
  losses: Loss[];
}

/** Collects losses while a translation walks a value. */
export class LossLog {
  readonly losses: Loss[] = [];
  constructor(readonly direction: LossDirection) {}
  add(id: Loss["id"], path: string, detail: string): void {
    this.losses.push({ id, direction: this.direction, path, detail });
  }
  done<T>(value: T): Translated<T> {
    return { value, losses: this.losses };
  }
}
