/**
 * Fine-tuning jobs as planned (Part 1 sections 2.9, 3, 4.9), served only under a `planned-fine-tuning-*`
 * fault. No training happens: a job stays `validating` until cancelled. The training file is not read.
 * Pause, resume and checkpoints are "conditional and not guaranteed" and stay unavailable.
 */
import { findModel } from '../models/catalogue.ts'
import { GatewayError, invalidParameter } from '../errors.ts'
import { listLimit, notFound, optionalString, pageAfter, plannedId, requestBody, requiredString } from './planned.ts'
import { isObject } from '../../common/json.ts'
import type { UnavailableRules } from './rules.ts'

export const SUFFIX_MAX_CHARS = 64 // section 4.9
const METHODS = ['supervised', 'dpo', 'reinforcement'] as const
const HYPERPARAMETERS = ['n_epochs', 'batch_size', 'learning_rate_multiplier'] as const
// The reference gives a default of 20 and no range; this gateway takes the batch list's 1..100.
const JOB_LIST_LIMIT = { min: 1, max: 100, default: 20 } as const

interface Job {
  id: string
  object: 'fine_tuning.job'
  model: string
  created_at: number
  finished_at: number | null
  fine_tuned_model: string | null
  organization_id: string
  status: string
  hyperparameters: Record<string, unknown>
  training_file: string
  validation_file: string | null
  result_files: string[]
  trained_tokens: number | null
  suffix: string | null
  method: { type: string }
}

export class PlannedFineTuning {
  readonly #byAccount = new Map<string, Job[]>()

  private readonly rules: UnavailableRules
  private readonly nowSeconds: () => number

  constructor(rules: UnavailableRules, nowSeconds: () => number) {
    this.rules = rules
    this.nowSeconds = nowSeconds
  }

  create(accountId: string, raw: unknown): Job {
    const body = requestBody(raw)
    const model = requiredString(body, 'model')
    if (!findModel(model))
      throw new GatewayError(404, `The model '${model}' does not exist.`, { code: 'model_not_found', param: 'model' })
    const job: Job = {
      id: plannedId('ftjob-'),
      object: 'fine_tuning.job',
      model,
      created_at: this.nowSeconds(),
      finished_at: null,
      fine_tuned_model: null,
      organization_id: `org-${accountId}`,
      status: this.rules.newJobStatus,
      hyperparameters: readHyperparameters(body.hyperparameters),
      training_file: requiredString(body, 'training_file'),
      validation_file: optionalString(body, 'validation_file', undefined),
      result_files: [],
      trained_tokens: null,
      suffix: optionalString(body, 'suffix', this.rules.checkSuffix ? SUFFIX_MAX_CHARS : undefined),
      method: { type: readMethod(body.method) },
    }
    this.#list(accountId).unshift(job)
    return job
  }

  list(accountId: string, query: Record<string, unknown>) {
    return pageAfter(this.#list(accountId), query.after, listLimit(query.limit, JOB_LIST_LIMIT))
  }

  get(accountId: string, id: string): Job {
    const job = this.#list(accountId).find((j) => j.id === id)
    if (!job) throw notFound('fine-tuning job', id)
    return job
  }

  cancel(accountId: string, id: string): Job {
    const job = this.get(accountId, id)
    if (['succeeded', 'failed', 'cancelled'].includes(job.status))
      throw invalidParameter('fine_tuning_job_id', `A job that is ${job.status} cannot be cancelled.`)
    job.status = 'cancelled'
    job.finished_at = this.nowSeconds()
    return job
  }

  events(accountId: string, id: string, query: Record<string, unknown>) {
    const job = this.get(accountId, id)
    const events = [
      {
        id: `ftevent-${job.id.slice(6)}`,
        object: 'fine_tuning.job.event',
        created_at: job.created_at,
        level: 'info',
        message: `Job ${job.status}.`,
      },
    ]
    return pageAfter(events, query.after, listLimit(query.limit, JOB_LIST_LIMIT))
  }

  #list(accountId: string): Job[] {
    let list = this.#byAccount.get(accountId)
    if (!list) {
      list = []
      this.#byAccount.set(accountId, list)
    }
    return list
  }
}

/** Each hyperparameter: an integer, a number or "auto" (the default). */
function readHyperparameters(value: unknown): Record<string, unknown> {
  if (value !== undefined && value !== null && !isObject(value))
    throw invalidParameter('hyperparameters', 'hyperparameters must be an object.')
  const given = (value ?? {}) as Record<string, unknown>
  return Object.fromEntries(
    HYPERPARAMETERS.map((name) => {
      const v = given[name] ?? 'auto'
      if (v !== 'auto' && (typeof v !== 'number' || !Number.isFinite(v) || v <= 0))
        throw invalidParameter(`hyperparameters.${name}`, `${name} must be a positive number or "auto".`)
      return [name, v]
    }),
  )
}

/** method: one of the three names, given as a string or as the convention's { type }. */
function readMethod(value: unknown): string {
  if (value === undefined || value === null) return 'supervised'
  const type = isObject(value) ? value.type : value
  if (typeof type !== 'string' || !(METHODS as readonly string[]).includes(type))
    throw invalidParameter('method', `method must be one of ${METHODS.join(', ')}.`)
  return type
}
