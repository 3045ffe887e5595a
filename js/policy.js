'use strict'
// The host's `policy` and `approve` callbacks, asked before a search touches
// anything (`checkPolicy`), and `untilAborted`, which ends a wait when the
// call's AbortSignal fires.

const { FindFilesError, abortedError, clip } = require('./errors.js')

/** Resolves as `promise` does, or rejects with `aborted` when `signal` fires first. */
function untilAborted(promise, signal) {
  if (!signal) return promise
  if (signal.aborted) return Promise.reject(abortedError())
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(abortedError())
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}

/** Asks `policy` (and `approve`) before anything is touched; throws unless allowed. */
async function checkPolicy(policy, approve, request, signal) {
  if (!policy) return
  let decision
  try {
    decision = await untilAborted(Promise.resolve().then(() => policy({ ...request })), signal)
  } catch (err) {
    if (err instanceof FindFilesError && err.code === 'aborted') throw err
    decision = 'deny'
  }
  if (decision === 'allow') return
  if (decision === 'require_approval') {
    let approved = false
    if (approve) {
      try {
        approved = (await untilAborted(Promise.resolve().then(() => approve({ ...request })), signal)) === true
      } catch (err) {
        if (err instanceof FindFilesError && err.code === 'aborted') throw err
      }
    }
    if (approved) return
    throw new FindFilesError(
      'approval-required',
      `approval required: ${request.tool} requires application approval for \`${clip(request.path)}\` before execution`,
    )
  }
  throw new FindFilesError('permission-denied', `permission denied: ${request.tool} is not allowed for \`${clip(request.path)}\``)
}

module.exports = { checkPolicy, untilAborted }
