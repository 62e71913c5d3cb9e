/** The YAML configuration ({@code config/wharf.yaml}) and its validation. */
package org.wharfmq.server.config;
