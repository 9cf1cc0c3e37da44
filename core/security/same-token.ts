// Comparing a secret a caller presents (a pane token, a hosted pane's re-attach token) with the one
// kept, in time that does not depend on where they first differ.
import { timingSafeEqual } from 'node:crypto';

export function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
