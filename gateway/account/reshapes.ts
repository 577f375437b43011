/** The account faults that only reshape a correct answer, applied by its routes; ./faults.ts names them. */
import { isObject } from '../../common/json.ts'
import { onRoutes, type AnswerReshapes } from '../faults/answers.ts'
import type { AccountFault } from './faults.ts'

const CREDIT = 'GET /user/v1/credit'
const TRANSACTIONS = 'GET /user/v1/transactions'

/**
 * The account faults that only reshape an answer (../faults/answers.ts); the others bend what is stored, counted or
 * selected.
 */
export const ACCOUNT_ANSWER_RESHAPES: AnswerReshapes<AccountFault> = {
  'credit-exchange-rate-float': onRoutes([CREDIT], (credit) => ({
    ...credit,
    exchange_rate: Number(credit.exchange_rate) + 0.5,
  })),
  'credit-grant-amount-number': onRoutes([CREDIT], (credit) => {
    const sources = credit.credit_sources
    if (!isObject(sources) || !Array.isArray(sources.grants)) return credit
    const grants = sources.grants.map((grant: unknown) =>
      isObject(grant) ? { ...grant, amount_irt: Number(grant.amount_irt) } : grant,
    )
    return { ...credit, credit_sources: { ...sources, grants } }
  }),
  // A model-filtered list says every transaction streamed.
  'transaction-filtered-stream-true': onRoutes([TRANSACTIONS], (list, request) => {
    if (!isObject(request.query) || request.query.model === undefined || !Array.isArray(list.transactions)) return list
    const transactions = list.transactions.map((record: unknown) =>
      isObject(record) ? { ...record, stream: true } : record,
    )
    return { ...list, transactions }
  }),
  'transactions-no-total': onRoutes([TRANSACTIONS], ({ total: _total, ...list }) => list),
  'has-more-always-false': onRoutes([TRANSACTIONS], (list) => ({ ...list, has_more: false })),
}
