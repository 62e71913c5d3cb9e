/**
 * The queue manager's HTTP listener ({@link org.wharfmq.server.http.HttpPlugin}) and the route registry
 * ({@link org.wharfmq.server.http.HttpRoutes}) that the metrics, the web console and message flows' HTTP input
 * register on. docs/operations.md, "HTTP listener".
 */
package org.wharfmq.server.http;
