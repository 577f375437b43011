/** The videos faults that only reshape a correct answer, applied by its routes; ./faults.ts names them. */
import { isObject } from '../../common/json.ts'
import type { Clock } from '../clock.ts'
import { createUuid7Generator } from '../uuid7.ts'
import { eachListed, inTurn, onRoutes, type AnswerReshape, type AnswerReshapes } from '../faults/answers.ts'
import type { VideosFault } from './faults.ts'

const LIST = 'GET /v1/videos'
const RETRIEVE = 'GET /v1/videos/:video_id'

type Job = Record<string, unknown>

/** Every job an answer shows: the one of create, remix and retrieve, and each of the list. */
function eachJob(reshape: (job: Job) => Job): AnswerReshape {
  return inTurn(
    onRoutes(['POST /v1/videos', 'POST /v1/videos/:video_id/remix', RETRIEVE], reshape),
    eachListed(LIST, reshape),
  )
}

/** The videos faults that only reshape an answer (../faults/answers.ts); the others bend the routes where they act. */
export function videosAnswerReshapes(clock: Clock): AnswerReshapes<VideosFault> {
  // Ids of the gateway's own, unrelated to any call's svc-request-id.
  const ownIds = createUuid7Generator(clock)
  return {
    'video-status-pending': eachJob((job) => (job.status === 'queued' ? { ...job, status: 'pending' } : job)),
    'video-safety-identifier-array': eachJob((job) =>
      typeof job.safety_identifier === 'string' ? { ...job, safety_identifier: [job.safety_identifier] } : job,
    ),
    'video-retrieve-no-safety-identifier': onRoutes([RETRIEVE], (job) => ({ ...job, safety_identifier: null })),
    // A fresh id per listing, except where the caller filters by the true one (which the list still matches).
    'video-list-request-id-own': eachListed(LIST, (job, request) =>
      isObject(request.query) && request.query.request_id !== undefined ? job : { ...job, request_id: ownIds() },
    ),
    'video-list-status-stale': eachListed(LIST, (job) =>
      job.status === 'completed' ? { ...job, status: 'processing', progress: 99, completed_at: null } : job,
    ),
    'video-list-bare-array': onRoutes([LIST], (list) => list.data),
  }
}
