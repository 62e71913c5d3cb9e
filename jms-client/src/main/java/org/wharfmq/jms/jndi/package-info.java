/** A directory-less JNDI provider configured from {@code jndi.properties}. */
package org.wharfmq.jms.jndi;
