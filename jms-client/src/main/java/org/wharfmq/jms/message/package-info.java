/** JMS message implementations and their encoding into the Wharf wire format. */
package org.wharfmq.jms.message;
