// The content module's tables: the website half and the media half keep their own files and migrations.
export * from './website';
export * from './media';
export * from './registrations';
