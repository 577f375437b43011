/**
 * An interrupted create (Part 2 §4.1: "after an interrupted connection, do not resubmit; list videos and inspect
 * the newest one"): the whole request is written, then the connection is dropped before any answer is read, as
 * when a network fails while the client waits. The harness client always reads the answer, so this one request
 * goes out on node:http itself; the key is taken from the run's configuration and never recorded.
 */
import { request as httpRequest, type ClientRequest } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { setTimeout as sleep } from 'node:timers/promises'
import type { KeySlot } from '../../harness/keys.ts'
import type { TargetClient } from '../../harness/worker/http-client.ts'
import { precondition } from '../../harness/worker/assert.ts'
import { observe } from '../../harness/worker/recorder.ts'
import { schemas } from '../../harness/schema-registry.ts'
import { runConfig, spend } from '../../harness/worker/suite.ts'
import { estimateUsd, listVideos, requireVideoRoutes, settleMs, trackTag, type VideoList } from './jobs.ts'
import { backoffDelayMs } from './poll.ts'

const INTERRUPT_DEFAULTS = {
  /** Longest wait for the request to be written before giving up on it. */
  writeTimeoutMs: 10_000,
}

/** Writes POST /v1/videos with `body` in full, then destroys the connection; resolves once it is gone. */
export async function dropCreate(
  api: TargetClient,
  key: KeySlot,
  body: Record<string, unknown>,
  label: string,
): Promise<{ how: 'dropped' | 'answered-before-drop' }> {
  await requireVideoRoutes(api)
  const config = runConfig()
  const secret = config.keys[key]
  if (secret === undefined) throw new Error(`no key for ${key}`)
  const url = new URL('/v1/videos', config.baseUrl)
  const payload = JSON.stringify(body)
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest
  spend(
    await estimateUsd(api, String(body.model), body.seconds ?? '4'),
    `${String(body.seconds ?? '4')} s ${String(body.model)} video (${label}, interrupted)`,
  )
  if (typeof body.safety_identifier === 'string') trackTag(body.safety_identifier, key)
  return new Promise((resolve, reject) => {
    let req: ClientRequest | undefined
    const timer = setTimeout(() => {
      req?.destroy()
      reject(new Error(`the interrupted create could not be written within ${INTERRUPT_DEFAULTS.writeTimeoutMs} ms`))
    }, INTERRUPT_DEFAULTS.writeTimeoutMs)
    req = send(url, {
      method: 'POST',
      agent: false, // a connection of its own, so that dropping it touches nothing else
      headers: {
        authorization: `Bearer ${secret}`,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(payload)),
        'x-client-request-id': `gc-${config.runId}-${label}-interrupted`,
      },
    })
    req.on('error', () => {}) // the drop itself surfaces as a socket error: expected
    req.on('response', (response) => {
      // An answer that raced the drop: the test still works, since it never reads it.
      response.destroy()
      clearTimeout(timer)
      resolve({ how: 'answered-before-drop' })
    })
    req.end(payload, () => {
      // 'finish': every byte of the request was handed to the socket.
      req?.destroy()
      clearTimeout(timer)
      resolve({ how: 'dropped' })
    })
  })
}

/**
 * Lists with the tag until the dropped create's job shows up (the list filtered by its unique safety_identifier,
 * then matched again here, so that a filter the target ignores cannot confuse it), with backoff, within the settle
 * bound (GATEWAY_SETTLE_MS): the server starts at submission, and §4.1 says nothing of how soon the list shows it.
 */
export async function findDropped(
  api: TargetClient,
  key: KeySlot,
  sid: string,
): Promise<{ list: VideoList; job: Record<string, unknown> | undefined; waitedMs: number }> {
  const started = Date.now()
  for (let attempt = 1; ; attempt += 1) {
    const list = await listVideos(api, { safety_identifier: sid }, key)
    const job = list.items.find((item) => item.safety_identifier === sid)
    // A job whose safety_identifier is not a string cannot be matched: P2-2.1-video-job reports that.
    const unreadable = list.items.find((item) => !schemas().validate('videos/job.json', item).ok)
    precondition(
      job !== undefined || unreadable === undefined,
      'P2-2.1-video-job',
      `a listed job is not a video job of §2.1: ${String(JSON.stringify(unreadable)).slice(0, 200)}`,
    )
    const waitedMs = Date.now() - started
    if (job !== undefined || waitedMs + backoffDelayMs(attempt) > settleMs()) {
      if (job !== undefined)
        observe(
          'interrupted create',
          `the job of a dropped create was listed after ${waitedMs} ms with status ${String(job.status)}`,
        )
      return { list, job, waitedMs }
    }
    await sleep(backoffDelayMs(attempt))
  }
}
