// What `--rough` changes in the server bench's bots (server-bots.ts), for the bench that reads their figures.

/** Player seats that are a stand's rough edges (the dropping and the misbehaving client): they send no poses. */
export const ROUGH_PLAYER_SEATS = 2;
