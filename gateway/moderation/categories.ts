/**
 * The moderation categories of Part 2 §2.4: thirteen, of which six also apply to image input and the
 * other seven to text only. One list for the route, the inline results and the classifier.
 */

export const MODERATION_CATEGORIES = [
  'sexual',
  'sexual/minors',
  'hate',
  'hate/threatening',
  'harassment',
  'harassment/threatening',
  'illicit',
  'illicit/violent',
  'self-harm',
  'self-harm/intent',
  'self-harm/instructions',
  'violence',
  'violence/graphic',
] as const

export type ModerationCategory = (typeof MODERATION_CATEGORIES)[number]

/** §2.4: image input applies to these six; the others apply to text only. */
export const IMAGE_CATEGORIES: ReadonlySet<ModerationCategory> = new Set([
  'sexual',
  'self-harm',
  'self-harm/intent',
  'self-harm/instructions',
  'violence',
  'violence/graphic',
])

export type InputType = 'text' | 'image'
