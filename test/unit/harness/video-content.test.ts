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

  it('gives nothing for bytes that are no MP4', () => {
    expect(mp4Presentation(Buffer.from('not a movie'))).toEqual({})
  })
})
