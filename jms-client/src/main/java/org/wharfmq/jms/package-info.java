/** The Wharf JMS provider: {@link org.wharfmq.jms.WharfConnectionFactory} and the connection, session, producer and consumer behind it. */
package org.wharfmq.jms;
