import type { FastifyPluginAsync } from 'fastify';
import arrangementKeys from './arrangement-keys';
import arrangements from './arrangements';
import bibles from './bibles';
import files from './files';
import gallery from './gallery';
import playlists from './playlists';
import preview from './preview';
import sermons from './sermons';
import sheetMusicProvider from './sheet-music-provider';
import songDetailLinks from './song-detail-links';
import songDetails from './song-details';
import songs from './songs';
import stock from './stock';
import streamingServices from './streaming-services';
import support from './support';
import storage from './storage';

/** The media half's route files, one per spec table. */
export const mediaRoutes: FastifyPluginAsync[] = [
  sermons,
  playlists,
  streamingServices,
  preview,
  files,
  gallery,
  stock,
  bibles,
  songs,
  songDetails,
  songDetailLinks,
  arrangements,
  arrangementKeys,
  support,
  sheetMusicProvider,
  storage,
];
