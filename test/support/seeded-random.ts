/** The seeded PRNG of the simulation, for tests that act at random moments (one home for it). */
export { seededRandom, testSeed } from '@sas/simulation';
