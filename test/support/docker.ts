import { existsSync } from 'node:fs';

/**
 * True when a Docker engine is likely to answer: DOCKER_HOST is set or the default socket exists.
 * (testcontainers' own probe takes seconds to fail on a machine without Docker, so we check cheaply first.)
 */
export function dockerLikelyAvailable(): boolean {
  if (process.env.HELIX_NO_TESTCONTAINERS === '1') return false;
  return Boolean(process.env.DOCKER_HOST) || existsSync('/var/run/docker.sock');
}
