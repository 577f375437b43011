/**
 * WAV (RIFF/WAVE, PCM) written and read to the byte: the speech endpoint answers it (Part 2 §4.2) and the
 * transcription endpoints derive an upload's duration from its header (§4.3: diarization needs
 * chunking_strategy over 30 seconds, so the duration must be real, not guessed from the byte count).
 */

export interface PcmFormat {
  sampleRate: number
  channels: number
  bitsPerSample: number
}

export const WAV_HEADER_BYTES = 44

/** The canonical 44-byte header of a PCM WAV whose data chunk holds `dataBytes` bytes. */
export function wavHeader(format: PcmFormat, dataBytes: number): Buffer {
  const blockAlign = format.channels * (format.bitsPerSample / 8)
  const header = Buffer.alloc(WAV_HEADER_BYTES)
  header.write('RIFF', 0, 'ascii')
  header.writeUInt32LE(36 + dataBytes, 4) // everything after this field
  header.write('WAVE', 8, 'ascii')
  header.write('fmt ', 12, 'ascii')
  header.writeUInt32LE(16, 16)
  header.writeUInt16LE(1, 20) // PCM
  header.writeUInt16LE(format.channels, 22)
  header.writeUInt32LE(format.sampleRate, 24)
  header.writeUInt32LE(format.sampleRate * blockAlign, 28)
  header.writeUInt16LE(blockAlign, 32)
  header.writeUInt16LE(format.bitsPerSample, 34)
  header.write('data', 36, 'ascii')
  header.writeUInt32LE(dataBytes, 40)
  return header
}

export function wavFile(format: PcmFormat, samples: Buffer): Buffer {
  return Buffer.concat([wavHeader(format, samples.length), samples])
}

/** What a streaming encoder writes where the sizes are not yet known (RIFF and data chunk). */
export const UNKNOWN_SIZE = 0xffffffff

/** The same WAV as a streaming encoder writes it: RIFF and data sizes unknown (variation streaming-wav). */
export function withUnknownSizes(wav: Buffer): Buffer {
  const out = Buffer.from(wav)
  out.writeUInt32LE(UNKNOWN_SIZE, 4)
  out.writeUInt32LE(UNKNOWN_SIZE, 40)
  return out
}

export interface WavInfo extends PcmFormat {
  /** Size the data chunk declares. */
  dataBytes: number
  /** Where the data chunk's samples start. */
  dataOffset: number
  durationSeconds: number
}

/**
 * Reads the header of a WAV from its first bytes (the data itself need not be there): walks the chunks up to
 * `data`, so files with extra chunks (LIST, fact) are read too. Undefined when the bytes are not a PCM WAV.
 */
export function readWavHeader(head: Buffer): WavInfo | undefined {
  if (head.length < 12 || head.toString('ascii', 0, 4) !== 'RIFF' || head.toString('ascii', 8, 12) !== 'WAVE')
    return undefined
  let at = 12
  let format: (PcmFormat & { byteRate: number }) | undefined
  while (at + 8 <= head.length) {
    const id = head.toString('ascii', at, at + 4)
    const size = head.readUInt32LE(at + 4)
    if (id === 'fmt ' && at + 24 <= head.length) {
      format = {
        channels: head.readUInt16LE(at + 10),
        sampleRate: head.readUInt32LE(at + 12),
        byteRate: head.readUInt32LE(at + 16),
        bitsPerSample: head.readUInt16LE(at + 22),
      }
    }
    if (id === 'data') {
      if (!format || format.byteRate === 0) return undefined
      const { byteRate, ...pcm } = format
      // A streamed WAV says its size is unknown: the data runs to the end of the file.
      const dataBytes = size === UNKNOWN_SIZE ? head.length - (at + 8) : size
      return { ...pcm, dataBytes, dataOffset: at + 8, durationSeconds: dataBytes / byteRate }
    }
    at += 8 + size + (size % 2) // chunks are padded to an even size
  }
  return undefined
}
