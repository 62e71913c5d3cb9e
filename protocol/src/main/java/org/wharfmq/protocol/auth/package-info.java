/**
 * Authentication mechanisms both ends of a connection run: SCRAM-SHA-256 (RFC 5802, RFC 7677) as a client
 * ({@link org.wharfmq.protocol.auth.ScramClient}) and a server ({@link org.wharfmq.protocol.auth.ScramServer}), and
 * the stored form of a password ({@link org.wharfmq.protocol.auth.ScramCredential}). The password never crosses the
 * wire and is never stored: the server keeps a salted, iterated verifier, and each side proves to the other that it
 * knows the key derived from the password. The handshake that carries these messages is in {@code docs/protocol.md}.
 */
package org.wharfmq.protocol.auth;
