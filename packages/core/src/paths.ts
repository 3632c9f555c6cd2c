export const p = 1;
