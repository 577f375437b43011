/** How the videos suite reads a downloaded file: which container it is, and what an MP4 presents. */
import { describe, expect, it } from 'vitest'
import { makeMp4 } from '../../../gateway/videos/mp4.ts'
import { mp4Presentation, videoContainer } from '../../../suites/videos/mp4-check.ts'

describe('videoContainer', () => {
  it('names the containers of video files, and none for a message', () => {
    expect(videoContainer(Buffer.from(makeMp4({ width: 720, height: 1280, seconds: 4 })))).toBe('ISO base media (MP4)')
    expect(videoContainer(Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81]))).toBe('Matroska/WebM')
    expect(videoContainer(Buffer.from('RIFF\x10\x00\x00\x00AVI LIST', 'latin1'))).toBe('AVI')
    expect(videoContainer(Buffer.from('Video is still processing; try again later.'))).toBeUndefined()
    expect(videoContainer(Buffer.alloc(0))).toBeUndefined()
  })
})

describe('mp4Presentation', () => {
  it("reads the movie's duration and the video track's size", () => {
    expect(mp4Presentation(Buffer.from(makeMp4({ width: 720, height: 1280, seconds: 4 })))).toEqual({
      seconds: 4,
      width: 720,
      height: 1280,
    })
    expect(mp4Presentation(Buffer.from(makeMp4({ width: 1792, height: 1024, seconds: 12 })))).toEqual({
      seconds: 12,
      width: 1792,
      height: 1024,
    })
  })

  it('applies a quarter turn of the track matrix to its size', () => {
    const file = Buffer.from(makeMp4({ width: 1280, height: 720, seconds: 4 }))
    const matrix = file.indexOf('tkhd', 0, 'latin1') + 4 + 40
    file.writeInt32BE(0, matrix) // a
    file.writeInt32BE(0x10000, matrix + 4) // b
    file.writeInt32BE(-0x10000, matrix + 12) // c
    file.writeInt32BE(0, matrix + 16) // d
    expect(mp4Presentation(file)).toEqual({ seconds: 4, width: 720, height: 1280 })
  })

  it("reads a fragmented movie's duration from mehd, and none where mehd is absent", () => {
    const fragmented = (mehd: boolean): Buffer => {
      const file = Buffer.from(makeMp4({ width: 720, height: 1280, seconds: 4 }))
      const moov = file.indexOf('moov', 0, 'latin1') - 4
      const mvhd = file.indexOf('mvhd', moov, 'latin1') + 4
      const timescale = file.readUInt32BE(mvhd + 12)
      file.writeUInt32BE(0, mvhd + 16)
      const inner = mehd ? Buffer.alloc(16) : Buffer.alloc(0)
      if (mehd) {
        inner.writeUInt32BE(16, 0)
        inner.write('mehd', 4, 'latin1')
        inner.writeUInt32BE(4 * timescale, 12)
      }
      const mvex = Buffer.alloc(8)
      mvex.writeUInt32BE(8 + inner.length, 0)
      mvex.write('mvex', 4, 'latin1')
      const end = moov + file.readUInt32BE(moov)
      const out = Buffer.concat([file.subarray(0, end), mvex, inner, file.subarray(end)])
      out.writeUInt32BE(file.readUInt32BE(moov) + mvex.length + inner.length, moov)
      return out
    }
    expect(mp4Presentation(fragmented(true))).toEqual({ seconds: 4, width: 720, height: 1280 })
    expect(mp4Presentation(fragmented(false))).toEqual({ width: 720, height: 1280 })
  })

  it('gives nothing for bytes that are no MP4', () => {
    expect(mp4Presentation(Buffer.from('not a movie'))).toEqual({})
  })
})
