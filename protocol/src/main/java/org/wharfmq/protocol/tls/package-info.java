/**
 * TLS helpers both ends share: opening the key and trust stores they are configured with, with errors that name
 * the setting, the file and the fix.
 */
package org.wharfmq.protocol.tls;
