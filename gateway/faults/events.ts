/**
 * The layer where faults that only bend a streamed answer are applied, beside ./answers.ts for JSON answers. A
 * stream's events are made whole before they are written, so such a fault takes the correct sequence and renames,
 * drops, adds, reorders or bends events in it: the stream writers read as the reference says. Faults that change
 * when or how a stream is written (buffering, a cut connection) stay inline, in the writer.
 */
import type { FaultSet } from './definition.ts'
import type { StreamEvent } from '../sse.ts'

export type { StreamEvent } from '../sse.ts'

/** Bends the whole sequence of a stream's events: what a fault needs to drop or reorder some of them. */
export type EventReshape = (events: readonly StreamEvent[]) => StreamEvent[]

/**
 * A family's stream reshapes by fault name (typed by its family's names), in the order they apply when several are on.
 */
export type EventReshapes<Name extends string> = Partial<Record<Name, EventReshape>>

/** A stream event with a JSON body: every event but raw lines such as [DONE]. */
export interface JsonEvent extends StreamEvent {
  data: Record<string, unknown>
}

/** The events of a stream after the reshapes whose fault is on; the same array when none is. */
export function reshapeEvents(events: StreamEvent[], faults: FaultSet, reshapes: EventReshapes<string>): StreamEvent[] {
  let out = events
  for (const [name, reshape] of Object.entries(reshapes)) {
    if (reshape !== undefined && faults.has(name)) out = reshape(out)
  }
  return out
}

/**
 * A reshape of each JSON event on its own, given its place in the stream: it gives the event bent, several events
 * in its place, or null to drop it. Raw lines pass through.
 */
export function eachEvent(
  reshape: (event: JsonEvent, index: number, events: readonly StreamEvent[]) => StreamEvent | StreamEvent[] | null,
): EventReshape {
  return (events) =>
    events.flatMap((event, index) =>
      typeof event.data === 'string' ? [event] : (reshape(event as JsonEvent, index, events) ?? []),
    )
}

/** The events whose data.type is `type`, as the Responses stream types them. */
export function isType(event: StreamEvent, type: string): event is JsonEvent {
  return typeof event.data !== 'string' && event.data.type === type
}
