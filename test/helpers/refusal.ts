// The typed error a verb call answered with; fails the test when the call was not refused.
import { RpcError } from '../../core/rpc/client.js';

export interface Refusal {
  code: string;
  message: string;
  hint?: string;
  [field: string]: unknown;
}

export async function refusal(p: Promise<unknown>): Promise<Refusal> {
  try {
    await p;
  } catch (e) {
    if (e instanceof RpcError) return e.body as Refusal;
    throw e;
  }
  throw new Error('the call was not refused');
}
