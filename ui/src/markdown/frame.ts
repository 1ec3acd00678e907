// At most one run per animation frame: many requests within a frame run the work once, at the
// frame, with whatever is newest then. A timer backs the frame up, since hidden windows get no
// animation frames (the work still runs, less often).

export type Schedule = (run: () => void) => () => void;

const FALLBACK_MS = 250;

/** The next animation frame, or a timer if no frame comes first. Returns a cancel. */
export const nextFrame: Schedule = (run) => {
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    cancelAnimationFrame(frame);
    clearTimeout(timer);
    run();
  };
  const frame = requestAnimationFrame(once);
  const timer = setTimeout(once, FALLBACK_MS);
  return () => {
    done = true;
    cancelAnimationFrame(frame);
    clearTimeout(timer);
  };
};

/** A task of its own, after what is queued now (between frames). Returns a cancel. */
export const nextTask: Schedule = (run) => {
  const timer = setTimeout(run, 0);
  return () => clearTimeout(timer);
};

export class FrameCoalescer {
  private cancel: (() => void) | null = null;

  constructor(
    private readonly work: () => void,
    private readonly schedule: Schedule = nextFrame,
  ) {}

  /** Asks for one run at the next frame (no-op when one is already asked for). */
  request(): void {
    if (this.cancel) return;
    this.cancel = this.schedule(() => {
      this.cancel = null;
      this.work();
    });
  }

  get pending(): boolean {
    return this.cancel !== null;
  }

  /** Runs now what was asked for, if anything. */
  flush(): void {
    if (!this.cancel) return;
    this.cancel();
    this.cancel = null;
    this.work();
  }

  dispose(): void {
    this.cancel?.();
    this.cancel = null;
  }
}

/**
 * `schedule`, but not before `wait()` ms have passed (then at the next frame): spaces out work
 * whose frames cost more than the frame itself, so that the frames between stay free.
 */
export function spaced(schedule: Schedule, wait: () => number): Schedule {
  return (run) => {
    const ms = wait();
    if (ms <= 0) return schedule(run);
    let cancelFrame: (() => void) | null = null;
    const timer = setTimeout(() => {
      cancelFrame = schedule(run);
    }, ms);
    return () => {
      clearTimeout(timer);
      cancelFrame?.();
    };
  };
}

/** The next render of streamed text waits this many times the last one's cost, at most
 * MAX_WAIT_MS: its layout and paint cost about as much again, and the frames between stay free. */
const SPACING = 4;
const MAX_WAIT_MS = 200;

/** performance.now() before which the next render waits, after one from `started` to `done`. */
export function spacedAfter(started: number, done: number): number {
  return done + Math.min(MAX_WAIT_MS, SPACING * (done - started));
}
