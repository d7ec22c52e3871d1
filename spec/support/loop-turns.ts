// How many times the event loop turned (setImmediate callbacks ran) while `work` was under way: 0 when the
// work held the main thread from start to end, as synchronous compression or hashing would.
export async function loopTurnsDuring<T>(work: () => Promise<T>): Promise<{ turns: number; value: T }> {
  let turns = 0;
  let done = false;
  const tick = (): void => {
    if (done) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  try {
    const value = await work();
    return { turns, value };
  } finally {
    done = true;
  }
}
