/* SPDX-License-Identifier: MIT */
/* drivers/mlx5/mlx5.h: NVIDIA/Mellanox ConnectX-4/5/6 (mlx5) physical and
 * virtual functions, polled: one entry of the driver table
 * (drivers/nic_drivers.c). */
#ifndef DRIVERS_MLX5_MLX5_H
#define DRIVERS_MLX5_MLX5_H

#include "drivers/driver.h"

extern const struct nic_driver mlx5_driver;

#endif
