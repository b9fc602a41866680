import { periodWindow } from "./windows.js";

/**
 * A model's tokens in the current UTC calendar month: the volume that picks its pricing tier
 * (DESIGN.md section 4). Budget holds count it like a budget without a limit (worst case while in
 * flight, actual once settled); routing reads it to price candidates at the tier that applies.
 */
export interface VolumeCounter {
  key: string;
  ttlMs: number;
}

/** The month's key lives a month past its end: a settle at the turn of the month still finds it. */
const VOLUME_KEY_GRACE_MS = 31 * 86_400_000;

export function monthlyVolumeCounter(modelId: string, now: number): VolumeCounter {
  const month = periodWindow("monthly", now);
  return { key: `volume:model:${modelId}:${month.id}`, ttlMs: month.endsAt - now + VOLUME_KEY_GRACE_MS };
}
