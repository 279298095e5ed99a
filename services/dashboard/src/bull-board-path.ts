/** Where bull-board is mounted. */
export const BULL_BOARD_PATH = '/queues';
