/**
 * The web console ({@link org.wharfmq.server.console.ConsolePlugin}): pages served from the jar on the HTTP listener
 * and a JSON API that is the admin plugin's commands over HTTP. docs/operations.md, "Web console".
 */
package org.wharfmq.server.console;
