/* SPDX-License-Identifier: BSD-3-Clause */
int
main(void)
{
	return 0;
}
