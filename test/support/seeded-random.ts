/** The seeded PRNG of the simulation, for tests that act at random moments (one home for it). */
export { seededRandom, testSeed, type SeededRandom } from '@sas/simulation';
