/** Internal implementation of the MySQL backend; not part of the public API and may change at any time. */
package io.distlock.mysql.internal;
