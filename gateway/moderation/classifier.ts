/**
 * The simulated moderation classifier. Real moderation is out of the simulator's scope; what the reference
 * states is the shape (Part 2 §2.4), so this one is only deterministic and easy to steer in self-tests:
 *
 * - a text or an image URL holding the marker `gc-flag-<category>` (slashes as dashes, e.g.
 *   `gc-flag-self-harm-intent`) scores 0.9 in that category, and the older marker `gc-flag-me` flags violence;
 * - a few plain words of violence (kill, attack, bomb, shoot, stab) score 0.92 in violence, so that a
 *   clearly violent sentence is flagged as a real classifier would flag it;
 * - every other score is a small number below 0.01 taken from a hash of the content, so scores vary by input
 *   but never flag.
 *
 * A category is flagged at 0.5 and above; a result is flagged when any category is. Image input is scored only
 * in the six categories it applies to (§2.4); the others score from the text alone.
 */
import { createHash } from 'node:crypto'
import { IMAGE_CATEGORIES, MODERATION_CATEGORIES, type InputType, type ModerationCategory } from './categories.ts'

/** One input of a moderation request: its texts and the URLs (or data URLs) of its images. */
export interface ModerationInput {
  texts: string[]
  images: string[]
}

export interface ModerationResult {
  flagged: boolean
  categories: Record<ModerationCategory, boolean>
  category_scores: Record<ModerationCategory, number>
  category_applied_input_types: Record<ModerationCategory, InputType[]>
}

const FLAG_AT = 0.5
const VIOLENT_WORDS = /\b(kill|attack|bomb|shoot)\w*|\bstab(s|bed|bing)?\b/i

function marker(category: ModerationCategory): RegExp {
  return new RegExp(`gc-flag-${category.replace('/', '-')}(?![a-z-])`, 'i')
}

const MARKERS = new Map(MODERATION_CATEGORIES.map((category) => [category, marker(category)]))

function hits(content: string, category: ModerationCategory): boolean {
  if (MARKERS.get(category)?.test(content)) return true
  return category === 'violence' && (VIOLENT_WORDS.test(content) || /\bgc-flag-me\b/i.test(content))
}

/** A score below 0.01 for a category that nothing flags, different per content and category. */
function baseline(content: string, index: number): number {
  const hash = createHash('sha256').update(content).digest()
  return Math.round(((hash[index] as number) / 255 / 100) * 1e6) / 1e6
}

export function classify(input: ModerationInput): ModerationResult {
  const text = input.texts.join('\n')
  const images = input.images.join('\n')
  const hasText = input.texts.length > 0
  const hasImage = input.images.length > 0
  const categories = {} as Record<ModerationCategory, boolean>
  const scores = {} as Record<ModerationCategory, number>
  const applied = {} as Record<ModerationCategory, InputType[]>
  MODERATION_CATEGORIES.forEach((category, index) => {
    const imageApplies = hasImage && IMAGE_CATEGORIES.has(category)
    const hit = (hasText && hits(text, category)) || (imageApplies && hits(images, category))
    const score = hit
      ? category === 'violence' && VIOLENT_WORDS.test(text)
        ? 0.92
        : 0.9
      : baseline(`${text}\u0000${imageApplies ? images : ''}`, index)
    scores[category] = score
    categories[category] = score >= FLAG_AT
    applied[category] = [...(hasText ? (['text'] as const) : []), ...(imageApplies ? (['image'] as const) : [])]
  })
  return {
    flagged: Object.values(categories).some(Boolean),
    categories,
    category_scores: scores,
    category_applied_input_types: applied,
  }
}
