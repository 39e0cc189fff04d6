// The media half's tables (sermons, playlists, streaming, files, gallery, Bible, songs, sheet music).
export {};
