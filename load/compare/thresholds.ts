/**
 * The thresholds and noise bands of a comparison: apart from judge.ts, so that `compare --help`, which names the
 * defaults, loads none of the figures.
 */
export const COMPARE = {
  /** Default regression threshold of relative figures: a share of the baseline, in percent. */
  thresholdPercent: 10,
  /** Default regression threshold of share figures (errors), in percentage points. */
  thresholdPoints: 1,
  /**
   * Without repeats on either side the spread is unknown: a change within this band is taken for noise, and the
   * output says that the spread was not measured. Loopback latency percentiles vary by more between runs; the
   * band only keeps rounding and jitter from being called changes.
   */
  noiseBandPercent: 5,
  noiseBandPoints: 0.5,
}
