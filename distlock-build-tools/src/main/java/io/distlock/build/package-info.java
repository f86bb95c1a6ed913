/** Checks used only by distlock's own build (README examples against the tested files). Not shipped. */
package io.distlock.build;
