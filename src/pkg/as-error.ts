// A catch clause or a rejection holds an `unknown`: JavaScript can throw any value. These make it an Error
// to pass on, or the message to show.

/** The value itself when it is an Error, else an Error whose message is its string form. */
export const asError = (err: unknown): Error => (err instanceof Error ? err : new Error(String(err)))

/** An Error's message, or any other thrown value's string form. */
export const errorMessage = (err: unknown): string => (err instanceof Error ? err.message : String(err))
