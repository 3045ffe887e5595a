'use strict'
// The host's `policy` and `approve` callbacks, asked before a search touches
// anything (`checkPolicy`), and `untilAborted`, which ends a wait when the
// call's AbortSignal fires or its deadline (`timeoutMs`, counted from when
// the call was made) passes: a callback that never answers holds nothing.

const { FindFilesError, abortedError, clip } = require('./errors.js')

/** When a call made now with `timeoutMs` must end: `{ at, ms }`, or undefined without one. */
function deadlineOf(timeoutMs) {
  if (typeof timeoutMs !== 'number' || !(timeoutMs > 0) || !Number.isFinite(timeoutMs)) return undefined
  return { at: Date.now() + Math.ceil(timeoutMs), ms: Math.ceil(timeoutMs) }
}

function timedOut(deadline, what) {
  return new FindFilesError(
    'aborted',
    `the search was aborted: ${what} did not answer within timeoutMs (${deadline.ms} ms); answer sooner or raise \`timeoutMs\``,
  )
}

/**
 * Resolves as `promise` does, or rejects with `aborted` when `signal` fires
 * or `deadline` passes first (`what` names the wait in the timeout's message).
 */
function untilAborted(promise, signal, deadline, what = 'the search') {
  if (!signal && !deadline) return promise
  if (signal && signal.aborted) return Promise.reject(abortedError())
  if (deadline && Date.now() >= deadline.at) return Promise.reject(timedOut(deadline, what))
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(abortedError())
    if (signal) signal.addEventListener('abort', onAbort, { once: true })
    // setTimeout takes at most 2^31-1 ms; a longer deadline never fires in practice.
    const left = deadline ? deadline.at - Date.now() : 0
    const timer = deadline && left < 2 ** 31 ? setTimeout(() => reject(timedOut(deadline, what)), Math.max(0, left)) : undefined
    promise.then(resolve, reject).finally(() => {
      if (signal) signal.removeEventListener('abort', onAbort)
      clearTimeout(timer)
    })
  })
}

/**
 * Asks `policy` (and `approve`) before anything is touched; throws unless
 * allowed. Each is bounded by `signal` and `deadline` (`aborted`).
 */
async function checkPolicy(policy, approve, request, signal, deadline) {
  if (!policy) return
  let decision
  try {
    decision = await untilAborted(Promise.resolve().then(() => policy({ ...request })), signal, deadline, 'the policy')
  } catch (err) {
    if (err instanceof FindFilesError && err.code === 'aborted') throw err
    decision = 'deny'
  }
  if (decision === 'allow') return
  if (decision === 'require_approval') {
    let approved = false
    if (approve) {
      try {
        approved = (await untilAborted(Promise.resolve().then(() => approve({ ...request })), signal, deadline, 'approve')) === true
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

module.exports = { checkPolicy, deadlineOf, untilAborted }
