/** Spec limit: at most 100 MB of files per content item. */
export const MAX_BYTES_PER_CONTENT = 100 * 1024 * 1024;

/** How long a direct-upload form (or address) stays valid; a waiting upload holds its bytes of the quota that long. */
export const UPLOAD_FORM_SECONDS = 900;
