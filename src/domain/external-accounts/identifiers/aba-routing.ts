const WEIGHTS = [3, 7, 1, 3, 7, 1, 3, 7, 1];

/** A US ABA routing number: nine digits whose 3-7-1 weighted sum is a multiple of 10. */
export function abaRoutingProblem(value: string): string | undefined {
  if (!/^[0-9]{9}$/.test(value)) return 'must be nine digits';
  const sum = WEIGHTS.reduce((acc, w, i) => acc + w * Number(value[i]), 0);
  return sum % 10 === 0 ? undefined : 'is not a valid ABA routing number (its check digit does not match)';
}
