pub mod occupancy;
