/**
 * The simulated transcript of an audio file and its renderings (Part 2 §4.3, §4.4): deterministic English
 * sentences, one segment per five seconds of audio, words spread evenly over each segment. A real model hears
 * the audio; what the reference lets a client check is the shape, the timing and the length, so the transcript
 * follows the file's real duration.
 */
import { countTokens } from '../simulate/tokenizer.ts'

const SENTENCES = [
  'The quick brown fox jumps over the lazy dog.',
  'Please call me back when you have a moment.',
  'The meeting starts at ten in the morning.',
  'We will send the report before the end of the week.',
  'Thank you for listening to this recording.',
  'The weather is clear and the roads are quiet.',
]

export const SEGMENT_SECONDS = 5

export interface Segment {
  id: number
  start: number
  end: number
  text: string
  speaker: string
}

export interface Word {
  word: string
  start: number
  end: number
}

export interface Transcript {
  duration: number
  text: string
  segments: Segment[]
  words: Word[]
}

const round3 = (n: number): number => Math.round(n * 1000) / 1000

/** `speakers`: names to attribute segments to in turn (diarization); default two anonymous speakers A and B. */
export function transcribe(duration: number, speakers: readonly string[] = ['A', 'B']): Transcript {
  const count = Math.max(1, Math.ceil(duration / SEGMENT_SECONDS))
  const segments: Segment[] = []
  const words: Word[] = []
  for (let i = 0; i < count; i += 1) {
    const start = round3(i * SEGMENT_SECONDS)
    const end = round3(Math.min(duration, (i + 1) * SEGMENT_SECONDS))
    const text = SENTENCES[i % SENTENCES.length] as string
    segments.push({ id: i, start, end, text, speaker: speakers[i % speakers.length] as string })
    const parts = text.split(' ')
    const step = (end - start) / parts.length
    parts.forEach((word, w) => {
      words.push({
        word: word.replace(/[.,]$/, ''),
        start: round3(start + w * step),
        end: round3(start + (w + 1) * step),
      })
    })
  }
  return { duration: round3(duration), text: segments.map((s) => s.text).join(' '), segments, words }
}

export function outputTokens(transcript: Transcript): number {
  return countTokens(transcript.text)
}

function clock(seconds: number, separator: ',' | '.'): string {
  const ms = Math.round(seconds * 1000)
  const pad = (n: number, width = 2): string => String(n).padStart(width, '0')
  return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}${separator}${pad(ms % 1000, 3)}`
}

/** SubRip: numbered cues, HH:MM:SS,mmm timings. */
export function srt(transcript: Transcript, separator: ',' | '.' = ','): string {
  return transcript.segments
    .map((s, i) => `${i + 1}\n${clock(s.start, separator)} --> ${clock(s.end, separator)}\n${s.text}\n`)
    .join('\n')
}

/** WebVTT: the WEBVTT line, then cues with HH:MM:SS.mmm timings. */
export function vtt(transcript: Transcript): string {
  return `WEBVTT\n\n${transcript.segments.map((s) => `${clock(s.start, '.')} --> ${clock(s.end, '.')}\n${s.text}\n`).join('\n')}`
}

/** The widely used verbose_json shape (the reference does not show it): task, language, duration, text, segments, words. */
export function verboseJson(
  transcript: Transcript,
  task: 'transcribe' | 'translate',
  language: string,
  granularities: readonly string[],
): Record<string, unknown> {
  const segments = granularities.length === 0 || granularities.includes('segment')
  return {
    task,
    language,
    duration: transcript.duration,
    text: transcript.text,
    ...(segments
      ? {
          segments: transcript.segments.map((s) => ({
            id: s.id,
            seek: 0,
            start: s.start,
            end: s.end,
            text: s.text,
            tokens: [],
            temperature: 0,
            avg_logprob: -0.2,
            compression_ratio: 1.2,
            no_speech_prob: 0.01,
          })),
        }
      : {}),
    ...(granularities.includes('word') ? { words: transcript.words } : {}),
  }
}

export function diarizedJson(transcript: Transcript, usage: Record<string, unknown>): Record<string, unknown> {
  return {
    task: 'transcribe',
    duration: transcript.duration,
    text: transcript.text,
    segments: transcript.segments.map((s) => ({
      type: 'transcript.text.segment',
      id: `seg_${s.id}`,
      start: s.start,
      end: s.end,
      text: s.text,
      speaker: s.speaker,
    })),
    usage,
  }
}

/** What a transcription stream says besides the transcript (§6.1). */
export interface TranscriptStream {
  /** Diarized: each delta names its segment, and each segment follows its deltas as one event. */
  diarized: boolean
  logprobs: boolean
  usage: Record<string, unknown>
  /** Variation diarize-integer-speakers: segments and speakers numbered, as some diarizers stream them. */
  integerSpeakers: boolean
}

type TranscriptEvent = Record<string, unknown> & { type: string }

/** The events of a transcription stream: one delta per word, a segment event per diarized segment, then done. */
export function transcriptEvents(transcript: Transcript, stream: TranscriptStream): TranscriptEvent[] {
  const { diarized, integerSpeakers } = stream
  const events: TranscriptEvent[] = []
  for (const segment of transcript.segments) {
    const words = segment.text.split(/(?<= )/)
    const prefix = segment.id === 0 ? '' : ' '
    for (const [i, word] of words.entries()) {
      const delta = i === 0 ? prefix + word : word
      events.push({
        type: 'transcript.text.delta',
        delta,
        ...(diarized ? { segment_id: integerSpeakers ? segment.id : `seg_${segment.id}` } : {}),
        ...(stream.logprobs ? { logprobs: [{ token: delta, logprob: -0.1, bytes: [...Buffer.from(delta)] }] } : {}),
      })
    }
    if (diarized) {
      events.push({
        type: 'transcript.text.segment',
        id: integerSpeakers ? segment.id : `seg_${segment.id}`,
        start: segment.start,
        end: segment.end,
        text: segment.text,
        speaker: integerSpeakers ? speakerNumber(segment.speaker) : segment.speaker,
      })
    }
  }
  events.push({ type: 'transcript.text.done', text: transcript.text, usage: stream.usage })
  return events
}

const speakerNumbers = new Map<string, number>()
function speakerNumber(name: string): number {
  if (!speakerNumbers.has(name)) speakerNumbers.set(name, speakerNumbers.size)
  return speakerNumbers.get(name) as number
}
