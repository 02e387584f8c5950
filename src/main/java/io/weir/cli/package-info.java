/** The command line: one picocli class per subcommand of {@code weir}. */
package io.weir.cli;
