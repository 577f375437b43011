/**
 * The simulated voice: a deterministic tone whose pitch follows the text, 16-bit signed little-endian
 * samples. Real speech is not needed to test a gateway's containers; real, decodable samples are.
 */

/** Samples of `seconds` of tone at `sampleRate`, mono 16-bit LE; the pitch steps with the text's characters. */
export function toneSamples(text: string, seconds: number, sampleRate: number): Buffer {
  const count = Math.max(1, Math.round(seconds * sampleRate))
  const out = Buffer.alloc(count * 2)
  const codes = [...text].map((c) => c.codePointAt(0) ?? 32)
  const perChar = Math.max(1, Math.floor(count / Math.max(1, codes.length)))
  let phase = 0
  for (let i = 0; i < count; i += 1) {
    const code = codes.length === 0 ? 32 : (codes[Math.min(codes.length - 1, Math.floor(i / perChar))] as number)
    const hz = 140 + (code % 32) * 9 // a speaking-voice range, 140 to 419 Hz
    phase += (2 * Math.PI * hz) / sampleRate
    // A short fade in and out at the ends, so the audio does not click.
    const edge = Math.min(1, i / (sampleRate * 0.01), (count - i) / (sampleRate * 0.01))
    out.writeInt16LE(Math.round(Math.sin(phase) * 8000 * edge), i * 2)
  }
  return out
}
