/**
 * Faults of the audio endpoints (Part 2 §4.2, §4.3, §4.4, §6.1, §6.2, §8). See ../faults/registry.ts for what a fault
 * is.
 */
import type { FaultDefinition } from '../faults/definition.ts'

export const AUDIO_FAULTS = [
  // speech (§4.2, §6.2)
  {
    name: 'speech-tts-1-hd-unknown',
    breaks: ['P2-4.2-speech-models'],
    description: 'POST /v1/audio/speech answers 404 for tts-1-hd, as a gateway that lost the model would.',
  },
  {
    name: 'speech-default-wav',
    breaks: ['P2-4.2-speech-default-mp3'],
    description: 'Speech without response_format is WAV instead of MP3.',
  },
  {
    name: 'speech-flac-as-wav',
    breaks: ['P2-4.2-speech-formats'],
    description: 'Speech with response_format flac answers a WAV file instead of FLAC.',
  },
  {
    name: 'speech-opus-as-mp3',
    breaks: ['P2-4.2-speech-format-containers'],
    description: 'Speech with response_format opus answers MP3 frames instead of Ogg Opus.',
  },
  {
    name: 'speech-wav-riff-size',
    breaks: ['P2-4.2-speech-wav'],
    description: 'The RIFF chunk size of a speech WAV counts the whole file instead of the file less 8 bytes.',
  },
  {
    name: 'speech-input-limit-exclusive',
    breaks: ['P2-4.2-speech-input-max'],
    description: 'Speech input of exactly 4096 characters is refused: the limit check is >= instead of >.',
  },
  {
    name: 'speech-input-unlimited',
    breaks: ['P2-4.2-speech-input-limit'],
    relaxes: ['P2-4.2-speech-input-limit'],
    description: 'Speech input of any length is accepted.',
  },
  {
    name: 'speech-voice-cedar-refused',
    breaks: ['P2-4.2-speech-voices'],
    description: 'The voice cedar is refused as unknown, as by a gateway that predates it.',
  },
  {
    name: 'speech-instructions-tts1-accepted',
    breaks: ['P2-4.2-speech-instructions-refused'],
    relaxes: ['P2-4.2-speech-instructions-refused'],
    description: 'tts-1 and tts-1-hd accept instructions (and ignore them) instead of refusing them.',
  },
  {
    name: 'speech-instructions-refused',
    breaks: ['P2-4.2-speech-instructions-newer'],
    description: 'Every speech model refuses instructions with 400, the newer ones too.',
  },
  {
    name: 'speech-speed-unchecked',
    breaks: ['P2-4.2-speech-speed-refused'],
    relaxes: ['P2-4.2-speech-speed-refused'],
    description: 'Any speed is accepted; speeds outside 0.25..4.0 are clamped.',
  },
  {
    name: 'speech-speed-4-refused',
    breaks: ['P2-4.2-speech-speed-range'],
    description: 'speed 4.0, the top of the range, is refused (at most 3.99).',
  },
  {
    name: 'speech-format-unchecked',
    breaks: ['P2-4.2-speech-enums'],
    relaxes: ['P2-4.2-speech-enums'],
    description: 'An unknown response_format is answered with MP3 instead of refused.',
  },
  {
    name: 'speech-sse-tts1-accepted',
    breaks: ['P2-4.2-speech-sse-refused'],
    relaxes: ['P2-4.2-speech-sse-refused'],
    description: 'tts-1 and tts-1-hd accept stream_format sse and stream speech events.',
  },
  {
    name: 'speech-stream-audio-refused',
    breaks: ['P2-4.2-speech-stream-audio'],
    description: 'stream_format audio is refused with 400.',
  },
  {
    name: 'speech-voice-optional',
    breaks: ['P2-4.2-speech-required'],
    relaxes: ['P2-4.2-speech-required'],
    description: 'Speech without voice is spoken with alloy instead of refused.',
  },
  {
    name: 'speech-sse-as-audio',
    breaks: ['P2-6.2-speech-sse'],
    description: 'stream_format sse is answered with audio bytes instead of server-sent events.',
  },
  // transcription (§4.3, §6.1, §8)
  {
    name: 'transcription-default-text',
    breaks: ['P2-4.3-default-json'],
    description: 'A transcription without response_format answers text/plain instead of JSON.',
  },
  {
    name: 'transcription-srt-dot-millis',
    breaks: ['P2-4.3-formats-base'],
    description: 'SRT cue timings use a full stop before the milliseconds (the WebVTT form) instead of a comma.',
  },
  {
    name: 'transcription-newer-text-refused',
    breaks: ['P2-4.3-formats-newer'],
    description: 'A newer transcription model refuses response_format text with 400, taking json only.',
  },
  {
    name: 'transcription-newer-srt-accepted',
    breaks: ['P2-4.3-format-model-refused'],
    description: 'The newer transcription model answers srt, vtt and verbose_json instead of refusing them.',
  },
  {
    name: 'transcription-format-unchecked',
    breaks: ['P2-4.3-format-unknown'],
    relaxes: ['P2-4.3-format-unknown'],
    description: 'An unknown response_format is answered as json instead of refused.',
  },
  {
    name: 'diarized-json-refused',
    breaks: ['P2-4.3-diarized-json'],
    description: 'The diarization model refuses response_format diarized_json with 400.',
  },
  {
    name: 'timestamps-refused',
    breaks: ['P2-4.3-timestamps-verbose'],
    description: 'timestamp_granularities[] is refused with 400 even with verbose_json on the base model.',
  },
  {
    name: 'timestamps-unchecked',
    breaks: ['P2-4.3-timestamps-refused'],
    relaxes: ['P2-4.3-timestamps-refused'],
    description: 'timestamp_granularities[] is accepted (and ignored) with json and on the diarization model.',
  },
  {
    name: 'transcription-stream-base-accepted',
    breaks: ['P2-4.3-stream-base-refused'],
    description: 'The base transcription model accepts stream true and streams transcript events.',
  },
  {
    name: 'transcript-done-no-usage',
    breaks: ['P2-6.1-transcript-stream'],
    description: 'The transcript.text.done event of a transcription stream has no usage.',
  },
  {
    name: 'transcript-usage-as-string',
    breaks: ['P2-6.1-transcript-stream-types'],
    description: 'The usage of transcript.text.done is written as a JSON string instead of an object.',
  },
  {
    name: 'diarized-stream-no-segments',
    breaks: ['P2-6.1-transcript-segment'],
    description: 'A diarized transcription stream carries no transcript.text.segment events.',
  },
  {
    name: 'chunking-unchecked',
    breaks: ['P2-4.3-chunking-required'],
    description: 'Diarization of audio over 30 seconds is served without chunking_strategy.',
  },
  {
    name: 'transcription-logprobs-refused',
    breaks: ['P2-4.3-include-logprobs'],
    description: 'include[] logprobs is refused with 400 on every model and format.',
  },
  {
    name: 'transcription-language-refused',
    breaks: ['P2-4.3-language'],
    description: 'A language hint is refused with 400.',
  },
  {
    name: 'chunking-from-29s',
    breaks: ['P2-4.3-chunking-30s'],
    description: 'Diarization of 29 seconds of audio or more without chunking_strategy is refused (not only over 30).',
  },
  {
    name: 'diarize-prompt-accepted',
    breaks: ['P2-4.3-diarize-prompt-refused'],
    description: 'The diarization model accepts a prompt (and ignores it) instead of refusing it.',
  },
  {
    name: 'transcription-prompt-refused',
    breaks: ['P2-4.3-prompt'],
    description: 'A prompt is refused with 400 by every transcription model, not only the diarization model.',
  },
  {
    name: 'transcription-chunking-object-refused',
    breaks: ['P2-4.3-chunking-object-shape'],
    description: 'chunking_strategy is taken only as the string auto; an object is refused with 400.',
  },
  {
    name: 'transcription-chunking-auto-refused',
    breaks: ['P2-4.3-chunking-object'],
    description: 'The newer transcription models refuse chunking_strategy auto with 400 (only an object is taken).',
  },
  {
    name: 'audio-json-transcript-key',
    breaks: ['P2-4.3-json-text', 'P2-4.4-translation-text'],
    description: 'The JSON transcriptions and translations name the transcript transcript instead of text.',
  },
  {
    name: 'transcription-flac-refused',
    breaks: ['P2-4.3-file-formats'],
    description: 'Transcription refuses FLAC files as an unsupported format.',
  },
  {
    name: 'transcription-any-file',
    breaks: ['P2-4.3-file-format-unknown'],
    description: 'Transcription accepts any file, e.g. a .txt of text, and transcribes it.',
  },
  {
    name: 'transcription-size-exclusive',
    breaks: ['P2-4.3-file-size-max'],
    description: 'A transcription upload of exactly 25 MB is refused: the limit check is >= instead of >.',
  },
  {
    name: 'transcription-size-unchecked',
    breaks: ['P2-4.3-file-size-limit'],
    description: 'The transcription upload limit is 50 MiB, past every reading of 25 MB.',
  },
  {
    name: 'transcription-model-optional',
    breaks: ['P2-4.3-required'],
    relaxes: ['P2-4.3-required'],
    description: 'A transcription without model is served by the base model instead of refused.',
  },
  {
    name: 'transcription-temperature-2',
    breaks: ['P2-4.3-temperature-refused'],
    relaxes: ['P2-4.3-temperature-refused'],
    description: 'Transcription accepts temperature up to 2 (the chat range) instead of 0 to 1.',
  },
  {
    name: 'transcription-temperature-1-refused',
    breaks: ['P2-4.3-temperature-range'],
    description: 'Transcription temperature 1, the top of the range, is refused (at most 0.99).',
  },
  {
    name: 'known-speakers-unchecked',
    breaks: ['P2-4.3-known-speakers-refused'],
    relaxes: ['P2-4.3-known-speakers-refused'],
    description: 'Diarization accepts any number of known speakers and reference clips of any length.',
  },
  {
    name: 'known-speakers-four-refused',
    breaks: ['P2-4.3-known-speakers'],
    description: 'Diarization refuses four known speakers, the most allowed (at most three).',
  },
  // translation (§4.4, §8)
  {
    name: 'translation-route-missing',
    breaks: ['P2-4.4-translation'],
    description: 'POST /v1/audio/translations is not offered: 404 unsupported route.',
  },
  {
    name: 'translation-size-exclusive',
    breaks: ['P2-4.4-file-size-max'],
    description: 'A translation upload of exactly 25 MB is refused: the limit check is >= instead of >.',
  },
  {
    name: 'translation-size-unchecked',
    breaks: ['P2-4.4-file-size-limit'],
    description: 'The translation upload limit is 50 MiB, past every reading of 25 MB.',
  },
  {
    name: 'translation-model-optional',
    breaks: ['P2-4.4-required'],
    relaxes: ['P2-4.4-required'],
    description: 'A translation without model is served by the base model instead of refused.',
  },
  {
    name: 'translation-any-file',
    breaks: ['P2-4.4-file-format-unknown'],
    description: 'Translation accepts any file, e.g. a .txt of text, and translates it.',
  },
  // keys (§5)
  {
    name: 'audio-missing-key-allowed',
    breaks: ['P2-5.1-audio-key-required'],
    description: '/v1/audio/* serves calls without a valid key as the main (tier-2) account.',
  },
] as const satisfies readonly FaultDefinition[]

/** The names of the audio faults: what its rules and reshapes are typed by. */
export type AudioFault = (typeof AUDIO_FAULTS)[number]['name']
