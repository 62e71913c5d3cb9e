/**
 * The built-in node types: Input, Output, Publication, RouteToLabel and Label, TryCatch, Throw, Trace and
 * Passthrough. User logic extends {@link org.wharfmq.flow.JavaComputeNode}.
 */
package org.wharfmq.flow.node;
