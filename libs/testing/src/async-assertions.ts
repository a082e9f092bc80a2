/** The error a promise rejects with, when it is an instance of `type`; any other outcome fails the test. */
export async function rejectionOf<TError extends Error>(work: Promise<unknown>, type: abstract new (...args: never[]) => TError): Promise<TError> {
  try {
    await work;
  } catch (error) {
    if (error instanceof type) {
      return error;
    }
    throw error;
  }
  throw new Error(`expected a rejection with ${type.name}`);
}

/** Polls `check` until it holds; fails after `timeoutMs`. For conditions reached by other processes (brokers, databases). */
export async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs = 15_000, pollMs = 50): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) {
      throw new Error('condition not reached in time');
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
