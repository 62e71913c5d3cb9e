/**
 * The security file ({@code security.yaml}, named by the server setting {@code security.file}): its users (SCRAM-SHA-256
 * verifiers and groups), whether anonymous clients are allowed, and an optional JAAS login module for PLAIN
 * ({@link org.wharfmq.server.security.file.JaasAuthenticator}); read by {@link org.wharfmq.server.security.file.SecurityFile}
 * and served, reloaded when the file changes, by {@link org.wharfmq.server.security.file.SecurityFileRealm}, the
 * broker's {@link org.wharfmq.server.security.Authenticator}. Jackson stays here, out of the broker (docs/security.md).
 */
package org.wharfmq.server.security.file;
